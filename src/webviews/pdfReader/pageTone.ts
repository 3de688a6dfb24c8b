/// <reference lib="dom" />
import { PAGE_TONES, type PageTone } from './protocol';

const LABELS: Record<PageTone, string> = { auto: 'Auto', light: 'Light', dark: 'Dark', sepia: 'Sepia' };

/**
 * The page tone button: Auto (dark VS Code themes invert the pages, as pdf.js
 * viewers' dark modes do), Light, Dark or Sepia. The look is CSS on
 * body[data-tone] (media/pdfReader.css); VS Code puts the theme's kind on the
 * body's class, so Auto follows a theme change without a message.
 */
export class PageToneButton {
  private tone: PageTone = 'auto';

  constructor(
    private readonly button: HTMLButtonElement,
    onChange: (tone: PageTone) => void,
  ) {
    button.addEventListener('click', () => {
      const next = PAGE_TONES[(PAGE_TONES.indexOf(this.tone) + 1) % PAGE_TONES.length];
      this.set(next);
      onChange(next);
    });
    // The first HTML carries the remembered tone (the opening picture is drawn in it before this script runs).
    const initial = document.body.dataset.tone as PageTone;
    this.set(PAGE_TONES.includes(initial) ? initial : 'auto');
  }

  set(tone: PageTone): void {
    this.tone = tone;
    document.body.dataset.tone = tone;
    this.button.textContent = `◐ ${LABELS[tone]}`;
    this.button.title = `Page colours: ${LABELS[tone]}${tone === 'auto' ? ' (follows the VS Code theme)' : ''}. Click for ${LABELS[PAGE_TONES[(PAGE_TONES.indexOf(tone) + 1) % PAGE_TONES.length]]}.`;
    this.button.setAttribute('aria-label', `Page colours: ${LABELS[tone]}`);
  }
}
