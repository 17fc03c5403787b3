/// The letters a pairing code is written in and its check digits: Crockford's base32 (the digits
/// and the letters without I, L, O and U, so no two look alike and no rude word forms by chance),
/// and a 15-bit CRC over the symbols.
///
/// The CRC is CAN's (x¹⁵+x¹⁴+x¹⁰+x⁸+x⁷+x⁴+x³+1), fed five bits per symbol and appended as the
/// last three symbols, so the whole code is one codeword: any error within 15 consecutive bits is
/// detected. A mistyped symbol changes 5 bits and two swapped neighbours at most 10, so both are
/// always refused; anything else (a lost or doubled symbol, a truncated code) passes with a
/// chance of 1 in 32,768, and then the content's own checks still apply.
enum PairingSymbols {
    static let alphabet: [Character] = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    static let checkSymbols = 3

    /// The symbol `character` stands for: Crockford's reading, so lower case is the same letter and
    /// I and L are read as 1, O as 0 (what a person copying by hand most likely meant). U is none.
    static func value(of character: Character) -> UInt8? {
        guard let ascii = character.asciiValue else { return nil }
        switch ascii {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return ascii - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return value(of: Character(Unicode.Scalar(ascii - 32)))
        case UInt8(ascii: "I"), UInt8(ascii: "L"): return 1
        case UInt8(ascii: "O"): return 0
        case UInt8(ascii: "U"): return nil
        default:
            guard let index = alphabet.firstIndex(of: character) else { return nil }
            return UInt8(index)
        }
    }

    /// `bytes` as 5-bit symbols, most significant bit first, the last one padded with zero bits.
    static func symbols(of bytes: [UInt8]) -> [UInt8] {
        var symbols: [UInt8] = []
        symbols.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                symbols.append(UInt8(buffer >> UInt32(bits) & 0x1F))
            }
        }
        if bits > 0 { symbols.append(UInt8(buffer << UInt32(5 - bits) & 0x1F)) }
        return symbols
    }

    /// The bytes `symbols` hold, or nil when the padding bits after the last whole byte are not zero
    /// (no encoder writes that: the code is damaged).
    static func bytes(of symbols: some Collection<UInt8>) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(symbols.count * 5 / 8)
        var buffer: UInt32 = 0
        var bits = 0
        for symbol in symbols {
            buffer = (buffer << 5 | UInt32(symbol)) & 0xFFFF
            bits += 5
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(buffer >> UInt32(bits) & 0xFF))
            }
        }
        return buffer & ((1 << UInt32(bits)) - 1) == 0 ? bytes : nil
    }

    /// The CRC of `symbols`, as the three symbols that follow them.
    static func check(_ symbols: some Sequence<UInt8>) -> [UInt8] {
        var crc: UInt16 = 0
        for symbol in symbols {
            for shift in (0..<5).reversed() {
                let feedback = (crc >> 14 ^ UInt16(symbol >> UInt8(shift))) & 1
                crc = crc << 1 & 0x7FFF
                if feedback == 1 { crc ^= 0x4599 }
            }
        }
        return [UInt8(crc >> 10 & 0x1F), UInt8(crc >> 5 & 0x1F), UInt8(crc & 0x1F)]
    }
}
