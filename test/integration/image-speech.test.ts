import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot, speechHelperPath } from '@aiplane/hack';
import { encode, SENTENCES, speech } from './speech-helpers.js';

const run = promisify(execFile);

/** What the distroless runtime base carries itself (collect-speech-runtime.sh copies the rest). */
const BASE =
  /^(ld-linux.*|libc|libm|libdl|libpthread|librt|libresolv|libutil|libgcc_s|libstdc\+\+)\.so/;

/**
 * The speech programs of the container image (docs/adr/0036; no Docker here): what
 * hack/lib/collect-speech-runtime.sh gathers, on top of only the libraries the runtime base
 * has, runs in a root of its own (chroot): ffmpeg decodes Ogg/Opus and the helper recognises
 * it with the model from the image's path. A library the collection missed fails here.
 */
describe('the image’s speech programs, alone in a root with only the base’s libraries', function () {
  this.timeout(120_000);
  let root: string;

  before(async function () {
    root = mkdtempSync(join(tmpdir(), 'aiplane-speech-root-'));
    const sameDevice = statSync(root).dev === statSync('/usr/bin/ffmpeg').dev;
    await run(join(repoRoot, 'hack/lib/collect-speech-runtime.sh'), [root, speechHelperPath()], {
      env: { ...process.env, AIPLANE_COLLECT_LINK: sameDevice ? '1' : '' },
    });
    // The base image's libraries: the dynamic loader, glibc, the C and C++ runtimes.
    const ldd = execFileSync('ldd', ['/usr/bin/ffmpeg', speechHelperPath()], { encoding: 'utf8' });
    for (const m of ldd.matchAll(/^\s*(\S+)(?: => (\/\S+))? \(0x/gm)) {
      const [, name, resolved] = m as unknown as [string, string, string | undefined];
      const path = resolved ?? name;
      if (!path.startsWith('/') || !BASE.test(basename(name))) continue;
      const target = join(root, realpathSync(dirname(path)), basename(name));
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(path, target);
      if (resolved === undefined) {
        // The loader at the path binaries name (/lib64/ld-linux-x86-64.so.2).
        mkdirSync(join(root, dirname(path)), { recursive: true });
        copyFileSync(path, join(root, path));
      }
    }
  });
  after(function () {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  /** A command run in the root: chroot as root, in a user namespace otherwise. */
  const inRoot = (args: string[], input?: Buffer) => {
    const command = process.getuid?.() === 0 ? ['chroot', root] : ['unshare', '-r', 'chroot', root];
    return execFileSync(command[0] as string, [...command.slice(1), ...args], {
      input,
      maxBuffer: 64 * 2 ** 20,
    });
  };

  it('decodes Ogg/Opus with its ffmpeg and recognises it with its helper and model', async function () {
    const ogg = await encode(await speech([SENTENCES.report]), {
      encoding: 'opus',
      container: 'ogg',
    });
    const pcm = inRoot(
      [
        '/usr/bin/ffmpeg',
        '-hide_banner',
        '-loglevel',
        'error',
        '-f',
        'ogg',
        '-c:a',
        'opus',
        '-i',
        'pipe:0',
        '-ac',
        '1',
        '-ar',
        '16000',
        '-f',
        's16le',
        'pipe:1',
      ],
      ogg,
    );
    assert.ok(pcm.length > 32000, `${pcm.length} bytes of PCM`);
    const model = '/usr/share/pocketsphinx/model/en-us';
    const lines = inRoot(
      [
        '/usr/local/bin/aiplane-stt-pocketsphinx',
        '--hmm',
        `${model}/en-us`,
        '--lm',
        `${model}/en-us.lm.bin`,
        '--dict',
        `${model}/cmudict-en-us.dict`,
      ],
      pcm,
    )
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; text?: string });
    assert.deepEqual(
      lines.map((l) => l.type),
      ['ready', 'final', 'end'],
    );
    assert.match(lines[1]?.text ?? '', /report by friday/);
  });
});
