/** Clipboard and downloads, with what works on a plain-http origin too. */

export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Not a secure context (http on a LAN name): the old way still works from a click or key press.
  // Selecting the text focuses a textarea of our own; the focus goes back where it was (the
  // button, the row), or removing the textarea would drop it to the page.
  const before = document.activeElement;
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'offscreen';
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (before instanceof HTMLElement || before instanceof SVGElement) before.focus({ preventScroll: true });
  if (!ok) throw new Error('The browser did not allow copying.');
}

export function download(filename: string, data: BlobPart, type: string): void {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.className = 'offscreen';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}
