/// A QR code's modules, row by row: `true` is dark.
public struct QRMatrix: Hashable, Sendable {
    /// 1–40: the size is 17 + 4 × version modules.
    public let version: Int
    public let size: Int
    public let modules: [Bool]

    public init(version: Int, size: Int, modules: [Bool]) {
        precondition(modules.count == size * size, "a QR matrix has size × size modules")
        self.version = version
        self.size = size
        self.modules = modules
    }

    /// Whether the module is dark; outside the symbol (the quiet zone) every module is light.
    public subscript(row: Int, column: Int) -> Bool {
        guard (0..<size).contains(row), (0..<size).contains(column) else { return false }
        return modules[row * size + column]
    }
}
