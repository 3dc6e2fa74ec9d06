/** Polls `probe` until it answers true; fails naming `what` after `timeoutMs`. For states another process reaches. */
export async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`still waiting, after ${timeoutMs / 1000} s, for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
