// A shell step for suites: one `sh -c` script, its output, and an error that says what failed.

/** Runs `script` with sh (`stdin` fed to it, `env` added); its stdout, or an error with its stderr. */
export async function sh(script: string, options: { stdin?: string; env?: Record<string, string> } = {}): Promise<string> {
  const r = await Limina.run({ cmd: "sh", args: ["-c", script], ...options });
  if (r.code !== 0) throw new Error(`${script}\nexit ${r.code}: ${r.stderr}`);
  return r.stdout;
}
