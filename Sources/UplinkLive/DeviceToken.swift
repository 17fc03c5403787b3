import Glibc
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
    /// line of printable ASCII. Errors say which file (`what`: "the uplink token file", "the
    /// healthchecks API key file"), what is wrong and how to fix it.
    public static func read(path: String, what: String = "the uplink token file",
                            content: String = "the device's token") throws(TokenFileError) -> DeviceToken {
        // Symlinks are followed (e.g. to a credentials directory); the mode checked is the target's.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw TokenFileError("cannot read \(what) \(path): \(errnoText(code)); "
                + "create it (mode 0600, owned by the daemon's user) with \(content) on one line")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw TokenFileError("\(what) \(path) is not a regular file")
        }
        let mode = info.st_mode & 0o7777
        guard mode & 0o007 == 0 else {
            throw TokenFileError("\(what) \(path) has mode \(octal(mode)), so other users can "
                + "access it; refusing to use a secret others may have read. Run: chmod 600 \(path) "
                + "(or 640 with the daemon's group), and replace the secret if it may have leaked")
        }
        var bytes = [UInt8](repeating: 0, count: 4097)
        let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        guard count >= 0 else {
            throw TokenFileError("cannot read \(what) \(path): \(errnoText(errno))")
        }
        guard count < bytes.count else { throw TokenFileError("\(what) \(path) is larger than 4 KiB") }
        let text = String(decoding: bytes.prefix(count), as: UTF8.self).trimmingCharacters(in: " \t\r\n")
        guard !text.isEmpty else { throw TokenFileError("\(what) \(path) is empty; put \(content) in it") }
        guard text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw TokenFileError("\(what) \(path) must hold \(content) alone on one line "
                + "(printable ASCII without spaces)")
        }
        return DeviceToken(secret: text)
    }

    /// A healthchecks API key from `path` (`[healthchecks] api_key_file`): the token file's rules,
    /// and the 32 characters healthchecks' keys have, so a mistyped key stops the start rather
    /// than a press.
    public static func readHealthchecksAPIKey(path: String) throws(TokenFileError) -> DeviceToken {
        let key = try read(path: path, what: "the healthchecks API key file", content: "a read-write API key of the healthchecks project")
        guard key.secret.utf8.count == 32 else {
            throw TokenFileError("the healthchecks API key file \(path) holds \(key.secret.utf8.count) characters; a healthchecks "
                + "API key has 32 (copy it from the project's Settings → API Access)")
        }
        return key
    }

    private static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

public struct TokenFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
