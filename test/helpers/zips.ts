import zlib from 'node:zlib';

/** Zips made by hand for the upload guard's tests (activities/imports/zip-guard.ts): bombs, headers that lie. */

/** `megabytes` MB of "A" deflated (raw), built from one repeated sync-flushed block: a 50 MB run costs some 50 KB. */
export async function deflatedRun(prefix: string, megabytes: number, suffix: string): Promise<Buffer> {
  const deflater = zlib.createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflater.on('data', (chunk: Buffer) => out.push(chunk));
  const flushed = async (data: string | Buffer) => {
    deflater.write(data);
    await new Promise<void>((resolve) => deflater.flush(zlib.constants.Z_SYNC_FLUSH, () => resolve()));
    return Buffer.concat(out.splice(0));
  };
  const megabyte = Buffer.alloc(1024 * 1024, 'A');
  const first = await flushed(Buffer.concat([Buffer.from(prefix), megabyte]));
  const repeated = await flushed(megabyte);
  deflater.end(suffix);
  await new Promise((resolve) => deflater.on('end', resolve));
  return Buffer.concat([first, ...Array.from({ length: megabytes - 1 }, () => repeated), ...out]);
}

export interface Part {
  name: string;
  data: Buffer;
  declaredSize: number;
  deflated: boolean;
}

/**
 * A zip of `parts` as APPNOTE writes it (sizes in the local headers, no descriptor); each part declares the size it is
 * given.
 */
export function zipOf(parts: readonly Part[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(part.deflated ? 8 : 0, 8);
    local.writeUInt32LE(part.data.length, 18);
    local.writeUInt32LE(part.declaredSize, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    local.copy(central, 6, 4, 26);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, part.data);
    centrals.push(central, name);
    offset += 30 + name.length + part.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

export const stored = (name: string, text: string): Part => ({
  name,
  data: Buffer.from(text),
  declaredSize: Buffer.byteLength(text),
  deflated: false,
});
