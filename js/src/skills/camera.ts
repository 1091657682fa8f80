// camera.* skills: the world's view camera — what the window shows and what
// render.capture renders from unless a call brings its own camera.

import { z } from "zod";
import type { CameraRig } from "../camera/rig.ts";
import type { ViewCamera } from "../render/view-camera.ts";
import type { SkillDefinition } from "./registry.ts";
import { CameraPose, CameraPoseInput } from "./schemas.ts";

const cameraGetInput = z.strictObject({});

export function cameraSkills({ view, rig }: { view: ViewCamera; rig?: CameraRig }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "cameraSkills" };
  return [
    {
      name: "camera.set",
      version: "1.0.0",
      category: "render",
      description:
        "Move the world's view camera (what the window shows and render.capture uses by default): stand at position, look at target; fov is the vertical field of view in degrees, 1–170 (omitted: unchanged). Returns the new pose.",
      input: CameraPoseInput,
      output: CameraPose,
      permissions: ["scene.write"],
      source,
      handler: (input, ctx) => {
        // A placed camera is no longer driven by a rig.
        rig?.clear();
        const pose = view.set(input);
        ctx.emit("camera.moved", pose);
        return pose;
      },
    },
    {
      name: "camera.get",
      version: "1.0.0",
      category: "render",
      description: "The world's view camera: its position, the point it looks at and its vertical field of view in degrees.",
      input: cameraGetInput,
      output: CameraPose,
      permissions: ["scene.read"],
      source,
      handler: () => view.get(),
    },
  ];
}
