export * from './nova-notification.handler.js';
export * from './nova-notification.mapping.js';
export * from './nova-notifications.consumer.js';
export * from './oslo-envelope.js';
