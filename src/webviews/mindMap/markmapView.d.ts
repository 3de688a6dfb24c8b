// The part of markmap-view 0.18's API the mind-map webview uses. Its own
// typings re-export without file extensions (ESM) and name d3's types, which
// are not installed, so under this project's node16 resolution they resolve to
// nothing; esbuild bundles the real module.
declare module 'markmap-view' {
  import type { INode, IPureNode } from 'markmap-common';

  /** A d3 selection (d3's types are not installed). */
  export interface SvgSelection {
    node(): SVGSVGElement;
    append(name: string): SvgSelection;
  }

  /** d3-zoom's behaviour, as far as it is used here. */
  interface ZoomBehavior {
    on(typenames: string, listener: () => void): ZoomBehavior;
    scaleTo(selection: SvgSelection, k: number): void;
    translateTo(selection: SvgSelection, x: number, y: number, p?: [number, number]): void;
  }

  export interface IMarkmapOptions {
    autoFit: boolean;
    duration: number;
    embedGlobalCSS: boolean;
    fitRatio: number;
    initialExpandLevel: number;
    maxInitialScale: number;
    pan: boolean;
    zoom: boolean;
    color: (node: INode) => string;
    lineWidth: (node: INode) => number;
    maxWidth: number;
    nodeMinHeight: number;
    paddingX: number;
    spacingHorizontal: number;
    spacingVertical: number;
  }

  export class Markmap {
    constructor(svg: string | SVGElement | SvgSelection, opts?: Partial<IMarkmapOptions>);
    options: IMarkmapOptions;
    state: { id: string; data?: INode; highlight?: INode };
    /** Private in markmap: gives every node its state (ids, `key` for d3's data joins) before a render. */
    _initializeData(node: IPureNode): INode;
    svg: SvgSelection;
    zoom: ZoomBehavior;
    toggleNode(data: INode, recursive?: boolean): Promise<void>;
    setData(data?: IPureNode | null, opts?: Partial<IMarkmapOptions>): Promise<void>;
    setHighlight(node?: INode | null): Promise<void>;
    fit(maxScale?: number): Promise<void>;
    destroy(): void;
  }
}

declare module 'd3' {
  import type { SvgSelection } from 'markmap-view';
  export function select(node: Element): SvgSelection;
}
