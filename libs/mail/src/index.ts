export { startMailCatcher, listMails, localCatcherAddress, bounceMailboxDir, type StoredMail } from './mail-catcher.ts';
export { createMailTransport, type MailTransport } from './mail-transport.ts';
export { gatedSend, type GatedSend } from './gated-send.ts';
export {
  buildCampaignMail,
  prepareCampaignMail,
  type CampaignAttachment,
  type CampaignMailInput,
  type CampaignTemplate,
  type CampaignTemplateInput,
  type CampaignRecipientInput,
} from './campaign-mail.ts';
export { signTracking, verifyTracking, type TrackingClaims } from './tracking.ts';
export { emailTrackingKey } from './tracking-key.ts';
export { verpAddress, readVerpAddress, isVerpAddress, parseBounce, type Bounce, type VerpClaims } from './bounce.ts';
