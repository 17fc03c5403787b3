import Glibc

/// The GPIO character devices present (`/dev/gpiochipN`), in chip-number order (gpiochip2 before
/// gpiochip10): the one enumeration the daemon (libgpiod) and `lifesignalctl doctor` share.
public func gpioChipPaths(in directory: String = "/dev") -> [String] {
    guard let stream = opendir(directory) else { return [] }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if name.hasPrefix("gpiochip") { names.append(name) }
    }
    return names
        .sorted { (Int($0.dropFirst(8)) ?? .max, $0) < (Int($1.dropFirst(8)) ?? .max, $1) }
        .map { "\(directory)/\($0)" }
}
