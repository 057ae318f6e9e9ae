import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  fileTarget,
  isModelName,
  organizationDirectory,
  PathEscapeError,
  pathProblem,
  prepareTarget,
} from './download-paths.js';

describe('download paths', function () {
  describe('pathProblem', function () {
    for (const ok of [
      'model.safetensors',
      'onnx/model.onnx',
      'tokenizer.json',
      'a/b/c/d/e/f/g/h',
      'x..y',
      'v1.0+cu121=@x',
    ]) {
      it(`accepts ${ok}`, function () {
        assert.equal(pathProblem(ok), undefined);
      });
    }
    for (const [bad, why] of [
      ['../etc/passwd', '..'],
      ['a/../../b', '..'],
      ['./a', '.'],
      ['/etc/passwd', 'relative'],
      ['a//b', 'segments'],
      ['a/', 'segments'],
      ['', 'segments'],
      ['.hidden', 'segments'],
      ['a/.b.partial', 'segments'],
      ['a\\..\\b', 'segments'],
      ['a\u0000b', 'segments'],
      ['a b', 'segments'],
      ['a/b/c/d/e/f/g/h/i', 'segments'],
      ['x'.repeat(201), 'segments'],
    ] as const) {
      it(`refuses ${JSON.stringify(bad)}`, function () {
        assert.match(pathProblem(bad) ?? '', new RegExp(why));
      });
    }
  });

  it('accepts model names that are one directory, never . or ..', function () {
    assert.ok(isModelName('llama-3.1-8b-instruct'));
    for (const bad of ['..', '.', 'a/b', '', '-x', 'x'.repeat(129)])
      assert.ok(!isModelName(bad), bad);
  });

  it('names an organization’s directory by its id, or by a digest when the id is not a plain name', function () {
    assert.equal(
      organizationDirectory('4f0c2a52-8f4b-4f7e-9d61-0a2f6c1d2e3f'),
      '4f0c2a52-8f4b-4f7e-9d61-0a2f6c1d2e3f',
    );
    assert.match(organizationDirectory('../x'), /^org-[0-9a-f]{32}$/);
  });

  it('writes a file through a hidden partial file beside it', function () {
    assert.deepEqual(fileTarget('/store/o/m', 'onnx/model.onnx'), {
      final: '/store/o/m/onnx/model.onnx',
      partial: '/store/o/m/onnx/.model.onnx.partial',
    });
  });

  describe('prepareTarget', function () {
    let root: string;
    beforeEach(async function () {
      root = await mkdtemp(join(tmpdir(), 'aiplane-paths-'));
    });
    afterEach(async function () {
      await rm(root, { recursive: true, force: true });
    });

    it('creates the directories of a file inside the store', async function () {
      await prepareTarget(root, fileTarget(join(root, 'o', 'm'), 'a/b/file.bin'));
    });

    it('refuses a directory that is a symbolic link out of the store', async function () {
      const outside = await mkdtemp(join(tmpdir(), 'aiplane-outside-'));
      try {
        await mkdir(join(root, 'o', 'm'), { recursive: true });
        await symlink(outside, join(root, 'o', 'm', 'escape'));
        await assert.rejects(
          prepareTarget(root, fileTarget(join(root, 'o', 'm'), 'escape/file.bin')),
          PathEscapeError,
        );
      } finally {
        await rm(outside, { recursive: true, force: true });
      }
    });

    it('refuses a file that is a symbolic link, even one pointing inside', async function () {
      await mkdir(join(root, 'o', 'm'), { recursive: true });
      await symlink(join(root, 'elsewhere'), join(root, 'o', 'm', 'file.bin'));
      await assert.rejects(
        prepareTarget(root, fileTarget(join(root, 'o', 'm'), 'file.bin')),
        PathEscapeError,
      );
    });
  });
});
