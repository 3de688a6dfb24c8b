// Worker thread entry (dist/fsrsOptimizer.js): fits FSRS's weights to a
// review history with fsrs-rs (@open-spaced-repetition/binding) and scores
// the defaults, the weights in use and the fitted ones on the held-out tail.
import { parentPort, workerData } from 'node:worker_threads';
import type { FitInput, FitMessage, Score } from './fsrsFitTypes';
import { loadBinding } from './fsrsBinding';

const post = (m: FitMessage) => parentPort!.postMessage(m);

async function run(input: FitInput): Promise<void> {
  const loaded = loadBinding();
  if ('loadError' in loaded) return post({ kind: 'unavailable', loadError: loaded.loadError });
  const b = loaded.binding;
  const h = input.histories;
  const cards = h.starts.length - 1;
  post({ kind: 'progress', stage: 'prepare', current: 0, total: cards });
  const train: InstanceType<typeof b.FSRSBindingItem>[] = [];
  const test: InstanceType<typeof b.FSRSBindingItem>[] = [];
  for (let c = 0; c < cards; c++) {
    const from = h.starts[c];
    const to = h.starts[c + 1];
    const reviews = [];
    for (let k = from; k < to; k++)
      reviews.push(new b.FSRSBindingReview(h.ratings[k], k === from ? 0 : h.deltaDays[k]));
    // An item per grade after the first: the grade to predict, with the card's history before it.
    for (let i = 1; i < reviews.length; i++)
      (h.at[from + i] >= input.splitAt ? test : train).push(new b.FSRSBindingItem(reviews.slice(0, i + 1)));
  }
  const notEnough = (message: string) =>
    post({ kind: 'notEnough', trainItems: train.length, testItems: test.length, message });
  let parameters: number[];
  try {
    parameters = await b.computeParameters(train, {
      enableShortTerm: true,
      numRelearningSteps: input.numRelearningSteps,
      // fsrs-rs calls this now and then (not at every step, and not at all on a quick fit).
      progress: (current: number, total: number) => post({ kind: 'progress', stage: 'fit', current, total }),
    });
  } catch (e) {
    return /NotEnoughData/i.test(String(e)) ? notEnough(String(e)) : post({ kind: 'failed', message: String(e) });
  }
  post({ kind: 'progress', stage: 'score', current: 0, total: 3 });
  const score = (w?: number[] | null): Score => {
    const { logLoss, rmseBins } = new b.FSRSBinding(w ?? undefined).evaluate(test);
    return { logLoss, rmseBins };
  };
  try {
    post({
      kind: 'result',
      result: {
        parameters,
        trainItems: train.length,
        testItems: test.length,
        scores: { default: score(), current: input.current ? score(input.current) : null, fitted: score(parameters) },
      },
    });
  } catch (e) {
    return /NotEnoughData/i.test(String(e)) ? notEnough(String(e)) : post({ kind: 'failed', message: String(e) });
  }
}

run(workerData as FitInput).catch((e: unknown) => post({ kind: 'failed', message: String(e) }));
