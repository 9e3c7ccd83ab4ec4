import type { AttachmentView } from '../../protocol/webviewProtocol';
import { t } from '../strings';

/** A pasted image larger than this is left out (its data URL alone would be a large message). */
const maxImageBytes = 5 * 1024 * 1024;

/**
 * Reads images pasted into the composer as attachments, each when its data is read (in the cards
 * chunk: pasting an image is not what a chat's first paint needs). The files are taken from the
 * paste event while it runs (the clipboard's items are not readable after it).
 */
export function readPastedImages(files: readonly File[], win: Window & typeof globalThis, attach: (attachment: AttachmentView) => void): void {
  for (const file of files) {
    if (file.size > maxImageBytes) {
      continue;
    }
    const reader = new win.FileReader();
    reader.onload = () => {
      const url = typeof reader.result === 'string' ? reader.result : '';
      const data = url.slice(url.indexOf(',') + 1);
      attach({ path: '', label: t('Pasted image ({0} KB)', Math.round(file.size / 1024)), image: { mimeType: file.type, data } });
    };
    reader.readAsDataURL(file);
  }
}
