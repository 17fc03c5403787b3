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

    /// Reads the token from `path`: a regular file, not accessible to other users, holding one
    /// line of printable ASCII. Errors say which file, what is wrong and how to fix it.
    public static func read(path: String) throws(TokenFileError) -> DeviceToken {
        let text: String
        do {
            text = try SecretFile.read(path: path, what: "the uplink token file", secret: "the device's token")
        } catch {
            throw TokenFileError(error.message)
        }
        guard text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw TokenFileError("the uplink token file \(path) must hold the token alone on one line "
                + "(printable ASCII without spaces)")
        }
        return DeviceToken(secret: text)
    }
}

public struct TokenFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
