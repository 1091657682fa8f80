// The JS half of limina-ops: the error class native ops throw.

class LiminaError extends Error {
  constructor(message) {
    super(message);
    this.name = "LiminaError";
  }
}

Deno.core.registerErrorClass("LiminaError", LiminaError);
globalThis.LiminaError = LiminaError;
