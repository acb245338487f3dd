/**
 * The few DOM members the conversion reads. Workers have no DOM types (tsconfig.worker.json), and
 * the same code runs on linkedom in the worker and in Node, so the conversion is typed against this
 * shape instead of the browser's `Element`.
 */
export interface MarkupNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  parentNode: MarkupNode | null;
  childNodes: ArrayLike<MarkupNode>;
  firstChild: MarkupNode | null;
  getAttribute?(name: string): string | null;
}

const ELEMENT_NODE = 1;

export function attribute(node: MarkupNode | null | undefined, name: string): string | null {
  return node && node.nodeType === ELEMENT_NODE && node.getAttribute ? node.getAttribute(name) : null;
}

export function elementChildren(node: MarkupNode): MarkupNode[] {
  return Array.from(node.childNodes).filter((child) => child.nodeType === ELEMENT_NODE);
}
