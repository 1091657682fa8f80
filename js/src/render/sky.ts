// The physical sky: Preetham's analytic daylight model (Perez luminance
// distribution, turbidity-dependent zenith luminance and chromaticity),
// evaluated per view direction in TSL. What depends only on the sun and the
// turbidity is computed here on the CPU when they change; the GPU evaluates
// the Perez function per pixel. Used three ways: the background, the scene
// baked into environment lighting, and the tint of the fog.
// Browser-safe: three only.

import * as THREE from "three";
import { type Node, tsl } from "./tsl.ts";

const { Fn, float, vec3, uniform, exp, cos, acos, max, dot, normalize, clamp, smoothstep, mix } = tsl;

/** Perez coefficients A–E of Y, x and y, each `a·T + b` in turbidity T. */
const PEREZ = {
  Y: [[0.1787, -1.463], [-0.3554, 0.4275], [-0.0227, 5.3251], [0.1206, -2.5771], [-0.067, 0.3703]],
  x: [[-0.0193, -0.2592], [-0.0665, 0.0008], [-0.0004, 0.2125], [-0.0641, -0.8989], [-0.0033, 0.0452]],
  y: [[-0.0167, -0.2608], [-0.095, 0.0092], [-0.0079, 0.2102], [-0.0441, -1.6537], [-0.0109, 0.0529]],
} as const;

/** Zenith chromaticity: [T², T, 1] · M · [θs³, θs², θs, 1]. */
const ZENITH_X = [[0.00166, -0.00375, 0.00209, 0], [-0.02903, 0.06377, -0.03202, 0.00394], [0.11693, -0.21196, 0.06052, 0.25886]];
const ZENITH_Y = [[0.00275, -0.0061, 0.00317, 0], [-0.04214, 0.0897, -0.04153, 0.00516], [0.15346, -0.26756, 0.0667, 0.26688]];

/** The sun's angular radius, radians (drawn a little larger than the real 0.27° so it reads). */
const SUN_RADIUS = THREE.MathUtils.degToRad(0.6);

export interface SkyParameters {
  /** Unit vector toward the sun. */
  sun: THREE.Vector3;
  /** Atmospheric turbidity, 1.7 (very clear) to 10 (hazy). */
  turbidity: number;
}

function perezF(c: number[], theta: number, gamma: number): number {
  const [A, B, C, D, E] = c;
  return (1 + A * Math.exp(B / Math.max(Math.cos(theta), 0.01))) * (1 + C * Math.exp(D * gamma) + E * Math.cos(gamma) ** 2);
}

function zenithChroma(m: number[][], t: number, thetaS: number): number {
  const ts = [thetaS ** 3, thetaS ** 2, thetaS, 1];
  const tt = [t * t, t, 1];
  let v = 0;
  for (let i = 0; i < 3; i++) for (let j = 0; j < 4; j++) v += tt[i] * m[i][j] * ts[j];
  return v;
}

/** xyY (Y in kcd/m²) to linear sRGB. */
export function xyYToLinearSrgb(x: number, y: number, Y: number): [number, number, number] {
  const X = (x / y) * Y;
  const Z = ((1 - x - y) / y) * Y;
  return [3.2406 * X - 1.5372 * Y - 0.4986 * Z, -0.9689 * X + 1.8758 * Y + 0.0415 * Z, 0.0557 * X - 0.204 * Y + 1.057 * Z];
}

/** Scene units per kcd/m² of sky luminance: a clear noon sky lights a scene about a fifth as much as the sun does. */
const SCALE = 0.025;

/** The smallest sun elevation the model is evaluated at (it diverges below the horizon), radians. */
const MIN_MODEL_ELEVATION = THREE.MathUtils.degToRad(2);

/**
 * The sky as TSL: `radiance(direction)` is the sky's linear radiance toward
 * a unit direction, in scene units (1 ≈ a bright overcast sky).
 */
export class Sky {
  /** Unit vector toward the sun. */
  readonly sunDirection = uniform(new THREE.Vector3(0, 1, 0));
  /** Perez coefficients per channel, [A, B, C, D, E] as vec3s over (Y, x, y). */
  private readonly coeffs = [0, 1, 2, 3, 4].map(() => uniform(new THREE.Vector3()));
  /** Zenith Y, x, y divided by F(0, θs) per channel: the scale of the Perez function. */
  private readonly zenith = uniform(new THREE.Vector3());
  /** Brightness: scene units per kcd/m², faded as the sun sets. */
  private readonly scale = uniform(SCALE);
  /** The sun disc's colour (linear, scene units). */
  private readonly sunDisc = uniform(new THREE.Color());
  /** Below-horizon ground albedo, lit by the sun and the sky. */
  readonly ground = uniform(new THREE.Color(0x56524a));
  /** The light on the ground below the horizon (linear irradiance / π): the environment sets it from the sun and the sky. */
  readonly horizonLight = uniform(new THREE.Color());
  /** Horizon colour for a given sun, linear (what fog takes when it follows the sky). */
  readonly horizon = new THREE.Color();
  /** Zenith colour for a given sun, linear. */
  readonly zenithColor = new THREE.Color();
  /** The radiance node, a function of a unit direction. */
  readonly radiance: (direction: Node) => Node;

  constructor(parameters: SkyParameters = { sun: new THREE.Vector3(0.4, 0.7, 0.5).normalize(), turbidity: 2.5 }) {
    const [cA, cB, cC, cD, cE] = this.coeffs;
    const { zenith, scale, sunDirection, sunDisc, ground } = this;
    // Perez per channel (Y, x, y), then xyY → linear sRGB.
    const skyAbove = Fn(([dir]: [Node]) => {
      const d = normalize(vec3(dir.x, max(dir.y, 0.001), dir.z));
      const cosTheta = max(d.y, 0.01);
      const gamma = acos(clamp(dot(d, sunDirection), -1, 1));
      const f = vec3(1).add(cA.mul(exp(cB.div(cosTheta)))).mul(vec3(1).add(cC.mul(exp(cD.mul(gamma)))).add(cE.mul(cos(gamma).mul(cos(gamma)))));
      const Yxy = zenith.mul(f);
      const Y = Yxy.x;
      const x = Yxy.y;
      const y = max(Yxy.z, 0.01);
      const X = x.div(y).mul(Y);
      const Z = float(1).sub(x).sub(y).div(y).mul(Y);
      const rgb = vec3(
        X.mul(3.2406).sub(Y.mul(1.5372)).sub(Z.mul(0.4986)),
        X.mul(-0.9689).add(Y.mul(1.8758)).add(Z.mul(0.0415)),
        X.mul(0.0557).sub(Y.mul(0.204)).add(Z.mul(1.057)),
      );
      const disc = smoothstep(Math.cos(SUN_RADIUS * 1.4), Math.cos(SUN_RADIUS), dot(d, sunDirection)).mul(smoothstep(-0.01, 0.02, dir.y));
      return max(rgb, vec3(0)).mul(scale).add(vec3(sunDisc).mul(disc));
    });
    const horizonLight = this.horizonLight;
    // Below the horizon: the ground, lit by the horizon's light, fading in over a few degrees.
    this.radiance = (dir: Node) => mix(vec3(ground).mul(vec3(horizonLight)), skyAbove(dir), smoothstep(-0.04, 0.0, dir.y));
    this.set(parameters);
  }

  /** Re-derives the sky for a sun direction and turbidity (CPU side; cheap). */
  set({ sun, turbidity }: SkyParameters): void {
    const dir = sun.clone().normalize();
    this.sunDirection.value.copy(dir);
    const elevation = Math.asin(THREE.MathUtils.clamp(dir.y, -1, 1));
    // The model holds above the horizon; below it the same sky fades toward night.
    const modelElevation = Math.max(elevation, MIN_MODEL_ELEVATION);
    const thetaS = Math.PI / 2 - modelElevation;
    const T = turbidity;
    const channels = [PEREZ.Y, PEREZ.x, PEREZ.y].map((c) => c.map(([a, b]) => a * T + b));
    for (let i = 0; i < 5; i++) this.coeffs[i].value.set(channels[0][i], channels[1][i], channels[2][i]);
    const chi = (4 / 9 - T / 120) * (Math.PI - 2 * thetaS);
    const Yz = Math.max((4.0453 * T - 4.971) * Math.tan(chi) - 0.2155 * T + 2.4192, 0.05);
    const xz = zenithChroma(ZENITH_X, T, thetaS);
    const yz = zenithChroma(ZENITH_Y, T, thetaS);
    this.zenith.value.set(Yz / perezF(channels[0], 0, thetaS), xz / perezF(channels[1], 0, thetaS), yz / perezF(channels[2], 0, thetaS));
    // Twilight: the sky dims by two orders of magnitude as the sun sinks 10° below the horizon.
    const night = THREE.MathUtils.clamp(-elevation / THREE.MathUtils.degToRad(10), 0, 1);
    const dim = Math.pow(0.01, night);
    this.scale.value = SCALE * dim;
    // The disc: bright and white high up, reddened and dimmer near the horizon, gone below it.
    const airmass = 1 / Math.max(Math.sin(modelElevation), 0.05);
    const tint = [Math.exp(-0.03 * airmass * T), Math.exp(-0.06 * airmass * T), Math.exp(-0.13 * airmass * T)];
    const disc = elevation > -0.01 ? 40 : 0;
    this.sunDisc.value.setRGB(disc * tint[0], disc * tint[1], disc * tint[2]);
    this.horizon.setRGB(...this.sample(new THREE.Vector3(-dir.x, 0.05, -dir.z).normalize(), channels, thetaS, dir, dim));
    this.zenithColor.setRGB(...this.sample(new THREE.Vector3(0, 1, 0), channels, thetaS, dir, dim));
  }

  /** Every value the radiance node reads, as text: skies with equal keys draw the same. */
  drawnKey(): string {
    const vectors = [this.sunDirection, ...this.coeffs, this.zenith, this.sunDisc, this.ground, this.horizonLight];
    return `${vectors.map((u) => u.value.toArray().join(" ")).join(",")},${this.scale.value}`;
  }

  /** The sky's radiance toward `d` evaluated on the CPU (no sun disc), for colours that follow the sky. */
  private sample(d: THREE.Vector3, channels: number[][], thetaS: number, sun: THREE.Vector3, dim: number): [number, number, number] {
    const theta = Math.acos(Math.max(d.y, 0.01));
    const gamma = Math.acos(THREE.MathUtils.clamp(d.dot(sun), -1, 1));
    const z = this.zenith.value;
    const Y = z.x * perezF(channels[0], theta, gamma);
    const x = z.y * perezF(channels[1], theta, gamma);
    const y = Math.max(z.z * perezF(channels[2], theta, gamma), 0.01);
    const rgb = xyYToLinearSrgb(x, y, Y);
    return rgb.map((c) => Math.max(c, 0) * SCALE * dim) as [number, number, number];
  }
}
