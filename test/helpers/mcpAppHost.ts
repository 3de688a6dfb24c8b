/// <reference lib="dom" />
/**
 * The smallest MCP Apps host (the `io.modelcontextprotocol/ui` extension),
 * run in a browser page by the review app's test: ext-apps' own AppBridge
 * speaks the postMessage protocol to the View in a sandboxed iframe. As the
 * spec asks of a host, the iframe gets a CSP built from the resource's
 * `_meta.ui.csp` and the View's tool calls go to the MCP server: here through
 * `window.hostCallTool`, which the test wires to a real MCP client
 * (playwright's exposeFunction), so the browser needs no token.
 * Bundled by the test with esbuild (an IIFE), never by esbuild.mjs.
 */
import type { McpUiHostContext, McpUiResourceCsp } from '@modelcontextprotocol/ext-apps' with {
  'resolution-mode': 'import',
};

export interface MountArgs {
  html: string;
  csp: McpUiResourceCsp | undefined;
  toolInput: Record<string, unknown>;
  toolResult: Record<string, unknown>;
  hostContext: McpUiHostContext;
}

declare global {
  interface Window {
    hostCallTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Record<string, unknown>>;
    mountApp(args: MountArgs): Promise<void>;
    /** Every tools/call the View made, in order (for the test to read). */
    appToolCalls: Array<{ name: string; arguments?: Record<string, unknown> }>;
  }
}

/** The CSP the spec's "CSP Construction from Metadata" builds from a resource's declared domains. */
function hostCsp(csp: McpUiResourceCsp | undefined): string {
  const res = csp?.resourceDomains?.join(' ') ?? '';
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${res}`,
    `style-src 'self' 'unsafe-inline' ${res}`,
    `connect-src 'self' ${csp?.connectDomains?.join(' ') ?? ''}`,
    `img-src 'self' data: ${res}`,
    `font-src 'self' ${res}`,
    `media-src 'self' data: ${res}`,
    `frame-src ${csp?.frameDomains?.length ? csp.frameDomains.join(' ') : "'none'"}`,
    "object-src 'none'",
    `base-uri ${csp?.baseUriDomains?.length ? csp.baseUriDomains.join(' ') : "'self'"}`,
  ].join('; ');
}

window.appToolCalls = [];
window.mountApp = async (args) => {
  const { AppBridge, PostMessageTransport } = await import('@modelcontextprotocol/ext-apps/app-bridge');
  const meta = `<meta http-equiv="Content-Security-Policy" content="${hostCsp(args.csp)}">`;
  const iframe = document.createElement('iframe');
  iframe.id = 'app';
  iframe.title = 'MCP App';
  // No allow-same-origin: the View runs in an opaque origin, as web hosts sandbox it.
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.srcdoc = args.html.replace(/<head>/i, `<head>${meta}`);
  document.getElementById('host')!.append(iframe);
  const bridge = new AppBridge(
    null,
    { name: 'study-bridge-test-host', version: '1.0.0' },
    { serverTools: {}, logging: {} },
    { hostContext: args.hostContext },
  );
  bridge.oncalltool = async (params) => {
    window.appToolCalls.push({ name: params.name, arguments: params.arguments });
    return (await window.hostCallTool({ name: params.name, arguments: params.arguments })) as never;
  };
  bridge.onsizechange = ({ height }) => {
    if (height) iframe.style.height = `${height}px`;
  };
  bridge.oninitialized = () => {
    void bridge.sendToolInput({ arguments: args.toolInput });
    void bridge.sendToolResult(args.toolResult as never);
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
};
