import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Reads a secret kept in a local file, creating it (random, owner-only) on first use.
 * Local runs need stable secrets across restarts (the embedded database password, the JWT signing key)
 * without anyone having to invent them; production passes real secrets through the environment instead.
 */
export function readOrCreateSecret(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  // 'wx' fails if another process created the file meanwhile; then theirs wins and we read it.
  try {
    fs.writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return fs.readFileSync(file, 'utf8').trim();
  }
}

/** The JWT signing key: JWT_SECRET, or (outside production, where config requires it) one kept in DATA_DIR. */
export function resolveJwtSecret(config: { jwtSecret: string | undefined; dataDir: string }): string {
  return config.jwtSecret ?? readOrCreateSecret(path.join(config.dataDir, 'jwt-secret'));
}

/**
 * The token that reads /metrics: METRICS_TOKEN, or one kept in DATA_DIR outside production; null (metrics off) in
 * production without one.
 */
export function resolveMetricsToken(config: {
  metricsToken: string | undefined;
  dataDir: string;
  nodeEnv: string;
}): string | null {
  if (config.metricsToken !== undefined) return config.metricsToken;
  return config.nodeEnv === 'production' ? null : readOrCreateSecret(path.join(config.dataDir, 'metrics-token'));
}
