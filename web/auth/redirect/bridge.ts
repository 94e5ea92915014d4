import { broadcastResponseToMainFrame } from '@azure/msal-browser/redirect-bridge';

// The only job of this page: hand the provider's answer back to the window (or iframe parent) that asked.
void broadcastResponseToMainFrame();
