// For Limina's own sources only (not in `limina types`): the raw op table,
// which only the native crates' typed JS faces (crates/*/js) touch.

interface LiminaGlobal {
  readonly ops: Record<string, unknown>;
}
