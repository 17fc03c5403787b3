import LinuxIO

/// The device's bearer token, read from a file only its owner (and group) may read.
///
/// `description` never shows the secret, so the token cannot leak into a log by interpolation.
public struct DeviceToken: Sendable, CustomStringConvertible {
    let secret: String

    /// For tests and the dev server's fixtures; production reads a file.
    public init(secret: String) {
        self.secret = secret
    }

    public var description: String { "<device token, \(secret.utf8.count) bytes>" }

    /// The request header that carries it (to the backend: the only place the secret goes).
    public var authorizationHeader: String { "Authorization: Bearer \(secret)" }

    /// Reads the token from `path`: a regular file, not accessible to other users, holding one
    /// line of printable ASCII (SecretFile's rules). Errors say which file (`what`: "the uplink token
    /// file", "the healthchecks API key file"), what is wrong and how to fix it.
    public static func read(path: String, what: String = "the uplink token file",
                            content: String = "the device's token") throws(TokenFileError) -> DeviceToken {
        let text: String
        do {
            text = try SecretFile.read(path: path, what: what, secret: content)
        } catch {
            throw TokenFileError(error.message)
        }
        guard text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw TokenFileError("\(what) \(path) must hold \(content) alone on one line "
                + "(printable ASCII without spaces)")
        }
        return DeviceToken(secret: text)
    }

    /// A healthchecks API key from `path` (`[healthchecks] api_key_file`): the token file's rules,
    /// and the 32 characters healthchecks' keys have, so a mistyped key stops the start rather
    /// than a press.
    public static func readHealthchecksAPIKey(path: String, content: String = "a read-write API key of the healthchecks project")
        throws(TokenFileError) -> DeviceToken {
        let key = try read(path: path, what: "the healthchecks API key file", content: content)
        guard key.secret.utf8.count == 32 else {
            throw TokenFileError("the healthchecks API key file \(path) holds \(key.secret.utf8.count) characters; a healthchecks "
                + "API key has 32 (copy it from the project's Settings → API Access)")
        }
        return key
    }
}

public struct TokenFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
