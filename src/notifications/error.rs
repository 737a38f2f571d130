//! [`NotificationError`]: why the notification service (the account stream, webhooks) refused
//! or failed, each refusal with a stable [`NotificationError::code`].

use crate::store::StoreError;

/// Why a notification or webhook operation was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum NotificationError {
    /// A query parameter out of its range.
    #[error("{detail}")]
    InvalidQuery {
        /// The parameter at fault.
        parameter: &'static str,
        /// Its allowed values, in words.
        detail: String,
    },
    /// A webhook that cannot be registered as asked.
    #[error("{detail}")]
    InvalidWebhook {
        /// The field at fault.
        field: &'static str,
        /// What is wrong, in words.
        detail: String,
    },
    /// The account has as many webhooks as it may.
    #[error("An account has at most {0} webhooks: delete one first.")]
    TooManyWebhooks(usize),
    /// No such webhook among the caller's.
    #[error("You have no such webhook.")]
    WebhookNotFound,
    /// Alert settings that cannot be stored as asked.
    #[error("{detail}")]
    InvalidAlertSettings {
        /// The field at fault.
        field: &'static str,
        /// What is wrong, in words.
        detail: String,
    },
    /// Alerts by email asked for without a verified address.
    #[error(
        "Alerts by email need a verified address: set one with PUT /v1/me/email and follow the link mailed to it."
    )]
    EmailNotVerified,
    /// The server sends no mail.
    #[error(
        "This server sends no email (its operator has not set SMTP_URL, MAIL_FROM and PUBLIC_URL)."
    )]
    MailUnavailable,
    /// An unsubscribe link that is unknown.
    #[error("This unsubscribe link is unknown.")]
    UnknownUnsubscribeLink,
    /// A push subscription that cannot be registered as sent.
    #[error("{detail}")]
    InvalidSubscription {
        /// The field at fault.
        field: &'static str,
        /// What is wrong, in words.
        detail: String,
    },
    /// The account has as many push subscriptions as it may.
    #[error("An account has at most {0} push subscriptions: remove one first.")]
    TooManySubscriptions(usize),
    /// No such push subscription among the caller's.
    #[error("You have no such push subscription.")]
    SubscriptionNotFound,
    /// Storage failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A stored secret cannot be opened (the key encryption key changed?) or a stored value not
    /// read back.
    #[error("{0}")]
    Corrupt(String),
}

impl NotificationError {
    /// The stable, machine-readable code of a refusal.
    pub fn code(&self) -> &'static str {
        match self {
            NotificationError::InvalidQuery { .. } => "invalid_query",
            NotificationError::InvalidWebhook { .. } => "invalid_webhook",
            NotificationError::TooManyWebhooks(_) => "too_many_webhooks",
            NotificationError::WebhookNotFound => "not_found",
            NotificationError::InvalidAlertSettings { .. } => "invalid_alert_settings",
            NotificationError::EmailNotVerified => "email_not_verified",
            NotificationError::MailUnavailable => "mail_unavailable",
            NotificationError::UnknownUnsubscribeLink => "not_found",
            NotificationError::InvalidSubscription { .. } => "invalid_push_subscription",
            NotificationError::TooManySubscriptions(_) => "too_many_push_subscriptions",
            NotificationError::SubscriptionNotFound => "not_found",
            NotificationError::Store(store) if store.is_unavailable() => "service_unavailable",
            NotificationError::Store(_) | NotificationError::Corrupt(_) => "internal_error",
        }
    }

    /// The request field or parameter at fault, where one is.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            NotificationError::InvalidQuery { parameter, .. } => Some(parameter),
            NotificationError::InvalidWebhook { field, .. } => Some(field),
            NotificationError::InvalidAlertSettings { field, .. } => Some(field),
            NotificationError::InvalidSubscription { field, .. } => Some(field),
            _ => None,
        }
    }

    pub(crate) fn invalid_query(parameter: &'static str, detail: &str) -> NotificationError {
        NotificationError::InvalidQuery {
            parameter,
            detail: detail.to_owned(),
        }
    }
}
