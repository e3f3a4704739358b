import Foundation

// MARK: - Decoding

/// Where a decoded record's value came from.
enum RecordOrigin {
    /// Its stored bytes as they are.
    case stored
    /// Its stored bytes with keys filled from the type's defaults: the stored bytes hold every key they held, keys
    /// a newer version wrote included.
    case filled
    /// An older type's decoding, converted: the stored keys are that type's.
    case migrated
}

/// One record decoded, with where its value came from, or what each version said about it.
enum RecordDecoding<Value> {
    case success((Value, RecordOrigin))
    case failure(VersionMismatch)
}

/// What a file's bytes decode to, and which records are not stored in the current format: those that needed a
/// default or a migration, which the next write stores anew; which of them were migrated; and which records no
/// version reads, skipped (see `Snapshot.unreadable`).
struct DecodedArchive<Value> {
    var contents: PersistenceData<Value>
    var stale = IndexSet()
    var migrated = IndexSet()
    var unreadable = IndexSet()
}

extension Archive {
    /// Decodes a file's bytes as a `Value` or a `[Value]`, whichever they hold, with the type's defaults and
    /// migrations.
    func decode(_ bytes: Data) throws(PersistenceError) -> DecodedArchive<Value> {
        if !evolution.isEmpty, scansStrictJSON, let decoded = try decodeRecords(in: bytes) {
            return decoded
        }
        // The first byte says which to try first, so an array file is decoded once, not first tried as a single
        // value. The other is tried too before giving up: a value's own encoding may be a JSON array, and a file
        // in UTF-16 or UTF-32, which the decoder reads as well, opens with another byte.
        let opensArray = bytes.first(where: { !isJSONWhitespace($0) }) == UInt8(ascii: "[")
        do {
            if opensArray {
                return DecodedArchive(contents: .array(try decoder.decode([Value].self, from: bytes)))
            }
            return DecodedArchive(contents: .single(try decoder.decode(Value.self, from: bytes)))
        } catch {
            if opensArray {
                do {
                    return DecodedArchive(contents: .single(try decoder.decode(Value.self, from: bytes)))
                } catch let single where Self.singleValueErrorMatters(single, arrayError: error) {
                    throw unreadable(single, bytes: bytes, asOneValue: true)
                } catch {}
            }
            if !opensArray, let values = try? decoder.decode([Value].self, from: bytes) {
                return DecodedArchive(contents: .array(values))
            }
            // Only now, so that a file whose records all decode pays nothing for the records that might not.
            if opensArray, evolution.isEmpty, evolution.skipsUnreadable, scansStrictJSON,
                let decoded = try decodeRecords(in: bytes)
            {
                return decoded
            }
            throw unreadable(error, bytes: bytes)
        }
    }

    /// Whether, of the errors that decoding bytes that open with `[` gave as a `Value` and as an array of them,
    /// the first is the one to report.
    ///
    /// It is when the type's own encoding is an array, so that decoding one value read into the file's array
    /// instead of failing on it at once, and the file's first element is not a record at all, being the wrong kind of
    /// value, which is what decoding as an array of records says. For `[1,2]` and a type that decodes three
    /// numbers from an unkeyed container, that is the number missing at `[2]`, not that record 0 is no array.
    /// Otherwise the file is taken for an array of records, as the package writes them, and the record's error
    /// is reported.
    private static func singleValueErrorMatters(_ single: any Error, arrayError: any Error) -> Bool {
        guard case .typeMismatch(_, let context)? = arrayError as? DecodingError,
            context.codingPath.count == 1, context.codingPath[0].intValue == 0
        else { return false }
        if case .typeMismatch(_, let context)? = single as? DecodingError, context.codingPath.isEmpty { return false }
        return single is DecodingError
    }

    /// Decodes record by record, filling defaults and trying migrations; `nil` when the bytes are not strict UTF-8
    /// JSON, which the plain decoder then judges.
    private func decodeRecords(in bytes: Data) throws(PersistenceError) -> DecodedArchive<Value>? {
        if let ranges = JSONScanner.elementRanges(of: bytes) {
            do {
                let (values, stale, migrated, unreadable) = try decodeArray(bytes, records: ranges)
                // A value whose own encoding is an array, rather than records of another version.
                if !unreadable.isEmpty, let single = try? decoder.decode(Value.self, from: bytes) {
                    return DecodedArchive(contents: .single(single))
                }
                return DecodedArchive(
                    contents: .array(values), stale: stale, migrated: migrated, unreadable: unreadable
                )
            } catch {
                // A value whose own encoding is an array.
                do {
                    return DecodedArchive(contents: .single(try decoder.decode(Value.self, from: bytes)))
                } catch let single {
                    do {
                        _ = try decoder.decode([Value].self, from: bytes)
                    } catch let arrayError where Self.singleValueErrorMatters(single, arrayError: arrayError) {
                        throw unreadable(single, bytes: bytes, asOneValue: true)
                    } catch {}
                }
                throw error
            }
        }
        guard let range = JSONScanner.valueRange(of: bytes) else { return nil }
        let defaults = defaultsObject()
        switch decodeRecord(bytes, at: range, defaults: defaults, index: nil) {
        case .success(let (value, origin)):
            return DecodedArchive(
                contents: .single(value), stale: origin == .stored ? IndexSet() : IndexSet(integer: 0),
                migrated: origin == .migrated ? IndexSet(integer: 0) : IndexSet()
            )
        case .failure(let mismatch):
            throw mismatchError(mismatch)
        }
    }

    /// The type's defaults, parsed; `nil` when it declares none, or when they do not encode as an object.
    func defaultsObject() -> DefaultsObject? {
        guard let encoding = try? evolution.encodedDefaults(with: encoder) else { return nil }
        return DefaultsObject(encoding: encoding, keys: KeyReading(decoder))
    }

    /// Decodes the records at `ranges` of `bytes`: all at once when they decode as the current type after their
    /// defaults are filled and none that needed one may be an older type's, else one at a time (see
    /// `decodeRecord(_:at:defaults:index:filled:)`), skipping those no version reads when the type says so.
    func decodeArray(
        _ bytes: Data, records ranges: [Range<Int>]
    ) throws(PersistenceError) -> (values: [Value], stale: IndexSet, migrated: IndexSet, unreadable: IndexSet) {
        var source = bytes
        var filledRanges = ranges
        var stale = IndexSet()
        if let defaults = defaultsObject() {
            (source, filledRanges, stale) = defaults.fill(bytes, records: ranges)
        }
        // A record that needed a default may hold what an older type reads under keys the current one lacks: the
        // records are then read one at a time, so that a migration comes before the default.
        if stale.isEmpty || evolution.migrations.isEmpty {
            let failure: any Error
            do {
                return (try decoder.decode([Value].self, from: source), stale, IndexSet(), IndexSet())
            } catch {
                failure = error
            }
            guard !evolution.migrations.isEmpty || evolution.skipsUnreadable else {
                throw unreadable(failure, bytes: source)
            }
        }
        var values: [Value] = []
        var migrated = IndexSet()
        var unreadable = IndexSet()
        values.reserveCapacity(ranges.count)
        for index in ranges.indices {
            let filled = stale.contains(index) ? source[offsets: filledRanges[index]] : nil
            switch decodeRecord(bytes, at: ranges[index], defaults: nil, index: index, filled: filled) {
            case .success(let (value, origin)):
                values.append(value)
                stale.remove(index)
                if origin != .stored { stale.insert(index) }
                if origin == .migrated { migrated.insert(index) }
            case .failure(let mismatch):
                guard evolution.skipsUnreadable else { throw mismatchError(mismatch) }
                // Only another version's record is skipped: one that is not JSON is damage, which must not vanish.
                let record = ranges[index].shifted(by: bytes.startIndex)
                guard isJSON(Data(bytes[record])) else { throw mismatchError(mismatch, isDamage: true) }
                unreadable.insert(index)
                stale.remove(index)
            }
        }
        return (values, stale, migrated, unreadable)
    }

    /// Decodes one record. One that lacks no key of the defaults is decoded as the current type, then as each older
    /// type; one that lacks a key is decoded as each older type first, then as the current type with its defaults
    /// filled, so that a default never stands in for what the record holds under a key an older type reads. A
    /// default value a settings call was given fills last, only the keys the decoder asks for. Where the value
    /// came from is returned with it.
    ///
    /// - Parameters:
    ///   - defaults: The defaults to fill, unless the caller has filled them.
    ///   - filled: The record with its defaults filled already, when that gained it a key.
    func decodeRecord(
        _ bytes: Data, at range: Range<Int>, defaults: DefaultsObject?, index: Int?, filled: Data? = nil
    ) -> RecordDecoding<Value> {
        let raw = bytes[offsets: range]
        let filled = filled ?? defaults?.filled(raw)
        var current = filled ?? raw
        let prefix = index.map { "[\($0)]" } ?? ""
        var currentFailure: (any Error)?
        if filled == nil {
            do {
                return .success((try decoder.decode(Value.self, from: raw), .stored))
            } catch {
                currentFailure = error
            }
        }
        var attempts: [VersionMismatch.Attempt] = []
        for migration in evolution.migrations {
            do {
                return .success((try migration.decode(raw, decoder), .migrated))
            } catch {
                let (path, detail) = Self.describe(error)
                attempts.append(.init(typeName: migration.sourceTypeName, codingPath: Self.join(prefix, path), detail: detail))
            }
        }
        if let filled {
            do {
                return .success((try decoder.decode(Value.self, from: filled), .filled))
            } catch {
                currentFailure = error
            }
        }
        // One key at a time, as the decoder asks for it: a key it can do without, such as an optional, stays
        // missing, as it would without a default value.
        if let fallback = evolution.fallback.flatMap({ DefaultsObject(encoding: $0, keys: KeyReading(decoder)) }) {
            while case .keyNotFound(let key, let context)? = currentFailure as? DecodingError,
                let next = fallback.only(at: context.codingPath.map(\.stringValue) + [key.stringValue])?
                    .filled(current)
            {
                current = next
                do {
                    return .success((try decoder.decode(Value.self, from: current), .filled))
                } catch {
                    currentFailure = error
                }
            }
        }
        let (path, detail) = Self.describe(currentFailure ?? CocoaError(.coderReadCorrupt))
        attempts.insert(.init(typeName: typeName, codingPath: Self.join(prefix, path), detail: detail), at: 0)
        return .failure(VersionMismatch(record: index, attempts: attempts))
    }

    private static func join(_ prefix: String, _ path: String) -> String {
        guard !prefix.isEmpty, !path.isEmpty else { return prefix + path }
        return path.hasPrefix("[") ? prefix + path : prefix + "." + path
    }
}
