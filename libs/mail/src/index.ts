export { startMailCatcher, listMails, localCatcherAddress, type StoredMail } from './mail-catcher.ts';
export { createMailTransport, type MailTransport } from './mail-transport.ts';
export { buildCampaignMail, type CampaignMailInput } from './campaign-mail.ts';
export { signTracking, verifyTracking, type TrackingClaims } from './tracking.ts';
export { emailTrackingKey } from './tracking-key.ts';
