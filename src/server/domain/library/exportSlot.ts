import { busy } from '../../errors';

/** One export at a time (document exports and mind-map prints share it): a second one answers 503 EXPORT_BUSY. */
export class ExportSlot {
  private exporting = false;

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.exporting) throw busy('EXPORT_BUSY', 'Another export is running; retry when it is done.', 5);
    this.exporting = true;
    try {
      return await fn();
    } finally {
      this.exporting = false;
    }
  }
}
