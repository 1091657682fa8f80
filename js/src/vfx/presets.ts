// The particle presets: how each effect's particles are born (where, how
// fast, how long they live), move (gravity, drag, wind, flutter) and look
// over their life (size, colour, opacity, blending). Colours are linear and
// may exceed 1: fire, sparks, magic and explosions glow (bloom catches them).

export const VFX_PRESETS = ["fire", "smoke", "sparks", "magic", "rain", "snow", "explosion"] as const;
export type VfxPreset = (typeof VFX_PRESETS)[number];

export interface PresetSpec {
  /** What it does, for agents. */
  description: string;
  /** Particles an emitter of this preset has unless told otherwise. */
  count: number;
  /** Seconds a particle lives, least and most. */
  life: [number, number];
  /** All particles at once, once (an explosion), instead of a steady stream. */
  burst: boolean;
  /** Where particles are born around the emitter: a ball of radius extent[0], or a box of half-sizes extent. */
  shape: "ball" | "box";
  extent: [number, number, number];
  /** Every particle's starting velocity, m/s, plus a random one of up to `spread` in any direction. */
  velocity: [number, number, number];
  spread: number;
  /** Upward acceleration, m/s² (negative: falls). */
  gravity: number;
  /** Velocity lost per second, as a fraction. */
  drag: number;
  /** How much of the wind's velocity carries it (0: none, 1: all). */
  wind: number;
  /** Sideways wobble, m/s (snowflakes). */
  flutter: number;
  /** Particles below the emitter by more than this, metres, die (rain and snow reach the ground); null: never. */
  floor: number | null;
  /**
   * A weather field: its particles fall at a steady speed (`velocity` and the random `spread`; `gravity` and `drag`
   * are 0) with the wind and the flutter through the box of half-sizes `extent` around the emitter, from `floor`
   * below it to extent[1] above, and wrap from its bottom to its top. Such a field has a closed form: it is drawn
   * from its seed and the time, with no state and no simulation step (particles.ts).
   */
  wraps: boolean;
  /** Quad size, metres, at birth and at death; `stretch` lengthens it vertically (rain streaks). */
  size: [number, number];
  stretch: number;
  /** Linear RGB at birth and at death (what is not additive is dimmed as the daylight fades). */
  color: [[number, number, number], [number, number, number]];
  opacity: [number, number];
  additive: boolean;
}

export const PRESETS: Readonly<Record<VfxPreset, PresetSpec>> = {
  fire: {
    description: "flames licking upward, glowing orange to red",
    count: 3000, life: [0.5, 1.1], burst: false, shape: "ball", extent: [0.35, 0.1, 0.35],
    velocity: [0, 1.6, 0], spread: 0.45, gravity: 1.5, drag: 0.6, wind: 0.5, flutter: 0, floor: null, wraps: false,
    size: [0.4, 0.06], stretch: 1, color: [[2.4, 0.85, 0.14], [0.6, 0.07, 0.01]], opacity: [0.6, 0], additive: true,
  },
  smoke: {
    description: "grey smoke rising, spreading and fading",
    count: 1500, life: [2.5, 4], burst: false, shape: "ball", extent: [0.3, 0.1, 0.3],
    velocity: [0, 1, 0], spread: 0.35, gravity: 0.25, drag: 0.4, wind: 0.9, flutter: 0.2, floor: null, wraps: false,
    size: [0.4, 1.8], stretch: 1, color: [[0.1, 0.1, 0.105], [0.22, 0.22, 0.23]], opacity: [0.6, 0], additive: false,
  },
  sparks: {
    description: "hot sparks thrown up and falling back",
    count: 1200, life: [0.4, 1.1], burst: false, shape: "ball", extent: [0.05, 0.05, 0.05],
    velocity: [0, 3.5, 0], spread: 3, gravity: -9.8, drag: 0.3, wind: 0.2, flutter: 0, floor: null, wraps: false,
    size: [0.06, 0.03], stretch: 1, color: [[5, 3, 0.9], [2, 0.45, 0.06]], opacity: [1, 0.5], additive: true,
  },
  magic: {
    description: "violet and cyan motes swirling up out of a glowing ring",
    count: 2000, life: [1, 2], burst: false, shape: "ball", extent: [0.7, 0.15, 0.7],
    velocity: [0, 0.7, 0], spread: 0.5, gravity: 0.3, drag: 0.8, wind: 0.3, flutter: 0.6, floor: null, wraps: false,
    size: [0.12, 0.02], stretch: 1, color: [[0.5, 0.15, 1.8], [0.1, 1, 1.2]], opacity: [0.8, 0], additive: true,
  },
  rain: {
    description: "raindrops streaking down over a 40 × 40 m area around the emitter, to 10 m below it",
    count: 12000, life: [1.4, 1.6], burst: false, shape: "box", extent: [20, 8, 20],
    velocity: [0, -15, 0], spread: 0.5, gravity: 0, drag: 0, wind: 1, flutter: 0, floor: 10, wraps: true,
    size: [0.03, 0.03], stretch: 12, color: [[0.55, 0.6, 0.7], [0.55, 0.6, 0.7]], opacity: [0.55, 0.55], additive: false,
  },
  snow: {
    description: "snowflakes drifting down over a 40 × 40 m area around the emitter, to 8 m below it",
    count: 10000, life: [8, 10], burst: false, shape: "box", extent: [20, 6, 20],
    velocity: [0, -1.1, 0], spread: 0.25, gravity: 0, drag: 0, wind: 1, flutter: 0.5, floor: 8, wraps: true,
    size: [0.07, 0.07], stretch: 1, color: [[1.4, 1.4, 1.5], [1.4, 1.4, 1.5]], opacity: [0.95, 0.95], additive: false,
  },
  explosion: {
    description: "one fiery blast flung outward that cools into dark smoke (a burst: it ends by itself)",
    count: 4000, life: [0.6, 1.6], burst: true, shape: "ball", extent: [0.3, 0.3, 0.3],
    velocity: [0, 1.2, 0], spread: 6, gravity: -1.5, drag: 2.5, wind: 0.4, flutter: 0, floor: null, wraps: false,
    size: [0.35, 0.15], stretch: 1, color: [[2, 0.85, 0.2], [0.05, 0.04, 0.035]], opacity: [0.45, 0], additive: true,
  },
};

/** The longest a burst's particles live, in seconds (when a burst emitter ends by itself). */
export const burstLife = (preset: VfxPreset): number => PRESETS[preset].life[1];
