// Matrix samples: audio.* (sounds are not world state: nothing the matrix observes changes).
import type { MatrixFamily } from "./family.ts";

export const family: MatrixFamily = {
  samples: {
    "audio.play": { input: { freq: 440, secs: 0.1 } },
    "audio.ambient": { input: {} },
    "audio.playAt": { input: { freq: 440, secs: 0.1, position: [0, 0, -1] } },
    "audio.speak": { input: { text: "hi", position: [0, 0, -1] } },
    "audio.stop": { input: { handle: "snd_1" } },
    "audio.setVolume": { input: { handle: "snd_1", volume: 0.5 } },
    "audio.setBusVolume": { input: { bus: "sfx", volume: 1 } },
  },
};
