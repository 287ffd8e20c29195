/**
 * One job at a time per device: a printer on port 9100 serves one connection, and a printout must not
 * be interleaved with a status poll or a display text. Jobs of one device (by its address) queue in turn.
 */
const tails = new Map<string, Promise<void>>();

export async function withDevice<T>(key: string, job: () => Promise<T>): Promise<T> {
  const before = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  const tail = before.then(() => mine);
  tails.set(key, tail);
  try {
    await before;
    return await job();
  } finally {
    release();
    if (tails.get(key) === tail) tails.delete(key);
  }
}
