import { answerOf, ApiError, callerHeaders } from './api';
import type { FileNode } from './knowledge-types';

/**
 * Uploads one file into a folder (`folderId`, null for the caller's root) with `POST /v1/files`
 * (multipart: `folder_id`, then `file`), through XMLHttpRequest: its upload events report the
 * bytes sent, which fetch does not. `onProgress` gets the fraction sent (0 to 1).
 */
export async function uploadFile(
  file: File,
  folderId: string | null,
  onProgress: (fraction: number) => void,
): Promise<FileNode> {
  const headers = await callerHeaders();
  const form = new FormData();
  form.append('folder_id', folderId ?? 'null');
  form.append('file', file, file.name);
  return new Promise<FileNode>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/v1/files');
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    });
    xhr.addEventListener('load', () => {
      try {
        resolve(answerOf<FileNode>(xhr.status, xhr.statusText, xhr.responseText));
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
    xhr.addEventListener('error', () => reject(new ApiError(0, 'The API could not be reached.')));
    xhr.addEventListener('abort', () => reject(new ApiError(0, 'The upload was cancelled.')));
    xhr.send(form);
  });
}
