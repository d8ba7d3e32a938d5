//! The account endpoints' bodies, checked field by field (every problem in one 422).

use serde_json::Value;
use shipmate_types::accounts::{
    AccountChanges, DevLogin, EmailAddress, Login, NewAccessToken, NewAccount, PasswordChange,
    PasswordReset, Setup, VerifyEmail,
};

use crate::validate::{FromInput, Input};

/// New passwords: 10 to 256 characters, taken as typed.
const MIN_PASSWORD: usize = 10;

impl FromInput for Setup {
    fn read(input: &mut Input) -> Option<Self> {
        let token = input.string("token", 1, 200);
        let email = input.email("email");
        let name = input.opt_string("name", 200);
        let password = input.password("password", MIN_PASSWORD);
        Some(Setup {
            token: token?,
            email: email?,
            name,
            password: password?,
        })
    }
}

impl FromInput for NewAccount {
    fn read(input: &mut Input) -> Option<Self> {
        let email = input.email("email");
        let name = input.opt_string("name", 200);
        let password = input.password("password", MIN_PASSWORD);
        let invite = input.opt_string("invite", 200);
        Some(NewAccount {
            email: email?,
            name,
            password: password?,
            invite,
        })
    }
}

/// A sign-in takes whatever address and password were typed: a wrong one is a 401, not a 422.
impl FromInput for Login {
    fn read(input: &mut Input) -> Option<Self> {
        let email = input.string("email", 1, 254);
        let password = input.password("password", 1);
        let cli_callback = input.opt_string("cli_callback", 2048);
        let state = input.opt_string("state", 200);
        Some(Login {
            email: email?,
            password: password?,
            cli_callback,
            state,
        })
    }
}

impl FromInput for DevLogin {
    fn read(input: &mut Input) -> Option<Self> {
        let email = input.email("email");
        let name = input.opt_string("name", 200);
        Some(DevLogin {
            email: email?,
            name,
        })
    }
}

impl FromInput for PasswordChange {
    fn read(input: &mut Input) -> Option<Self> {
        let current_password = input
            .raw("current_password")
            .and_then(Value::as_str)
            .map(str::to_owned);
        Some(PasswordChange {
            current_password,
            password: input.password("password", MIN_PASSWORD)?,
        })
    }
}

impl FromInput for EmailAddress {
    fn read(input: &mut Input) -> Option<Self> {
        Some(EmailAddress {
            email: input.email("email")?,
        })
    }
}

impl FromInput for PasswordReset {
    fn read(input: &mut Input) -> Option<Self> {
        let token = input.string("token", 1, 200);
        let password = input.password("password", MIN_PASSWORD);
        Some(PasswordReset {
            token: token?,
            password: password?,
        })
    }
}

impl FromInput for VerifyEmail {
    fn read(input: &mut Input) -> Option<Self> {
        Some(VerifyEmail {
            token: input.string("token", 1, 200)?,
        })
    }
}

impl FromInput for NewAccessToken {
    fn read(input: &mut Input) -> Option<Self> {
        let name = input.string("name", 1, 100);
        let expires_in_days = input.opt_int("expires_in_days", 1, 365);
        Some(NewAccessToken {
            name: name?,
            expires_in_days,
        })
    }
}

impl FromInput for AccountChanges {
    fn read(input: &mut Input) -> Option<Self> {
        Some(AccountChanges {
            is_admin: input.opt_bool("is_admin"),
            disabled: input.opt_bool("disabled"),
        })
    }
}
