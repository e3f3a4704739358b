import Foundation

// MARK: - Decoding

extension Archive {
    /// Decodes a file's bytes as a `Value` or a `[Value]`, whichever they hold.
    func decode(_ bytes: Data) throws(PersistenceError) -> PersistenceData<Value> {
        // The first byte says which to try first, so an array file is decoded once, not first tried as a single
        // value. The other is tried too before giving up: a value's own encoding may be a JSON array, and a file
        // in UTF-16 or UTF-32, which the decoder reads as well, opens with another byte.
        let opensArray = bytes.first(where: { !isJSONWhitespace($0) }) == UInt8(ascii: "[")
        do {
            if opensArray {
                return .array(try decoder.decode([Value].self, from: bytes))
            }
            return .single(try decoder.decode(Value.self, from: bytes))
        } catch {
            if opensArray, let single = try? decoder.decode(Value.self, from: bytes) {
                return .single(single)
            }
            if !opensArray, let values = try? decoder.decode([Value].self, from: bytes) {
                return .array(values)
            }
            throw unreadable(error, bytes: bytes)
        }
    }

    private func unreadable(_ error: any Error, bytes: Data) -> PersistenceError {
        guard !bytes.allSatisfy(isJSONWhitespace) else {
            return failure(.unreadable(codingPath: "", detail: "The file is empty."))
        }
        guard let error = error as? DecodingError else {
            return failure(.unreadable(codingPath: "", detail: String(describing: error)))
        }
        let context: DecodingError.Context
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c):
            context = c
        @unknown default:
            return failure(.unreadable(codingPath: "", detail: String(describing: error)))
        }
        var path = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
        if path.hasPrefix(".") { path.removeFirst() }
        var detail = context.debugDescription
        if case .keyNotFound(let key, _) = error { detail = "No value for the key '\(key.stringValue)'." }
        if let underlying = context.underlyingError { detail += " (\(underlying.localizedDescription))" }
        return failure(.unreadable(codingPath: path, detail: detail))
    }
}
