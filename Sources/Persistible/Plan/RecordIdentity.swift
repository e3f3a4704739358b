import Foundation

/// What makes two records the same record: the `id` of an `Identifiable` type, else the whole value.
///
/// The choice is made from the type at run time, so an `Identifiable` type is identified by its `id` even in a
/// store made by generic code that did not know it.
struct RecordIdentity<Object: Hashable> {
    /// The record type as an `Identifiable` type, when it is one. Found once from the type, so that the check for
    /// `Identifiable`, a search of the type's conformances, is not repeated for every record of a large file.
    private let identifiedType: (any Identifiable.Type)?

    /// Whether records are identified by an `id` rather than by their whole value.
    var usesIdentifier: Bool { identifiedType != nil }

    init() {
        identifiedType = Object.self as? any Identifiable.Type
    }

    func of(_ object: Object) -> AnyHashable {
        guard let identifiedType else { return AnyHashable(object) }
        return Self.identifier(of: object, as: identifiedType)
    }

    // Generic, so that the metatype above is opened. `Identified` is `Object` itself, opened from its own metatype,
    // so the record is reinterpreted as the very type it is; a checked cast would search conformances each time.
    private static func identifier<Identified: Identifiable>(
        of object: Object, as type: Identified.Type
    ) -> AnyHashable {
        AnyHashable(unsafeBitCast(object, to: Identified.self).id)
    }
}

extension RecordIdentity {
    /// The identity a record's bytes hold under `id`, when the type is `Identifiable` with a `Decodable` `ID` and the
    /// bytes hold one: what can be known of a record that does not decode whole.
    func decodedIdentifier(of record: Data, with decoder: JSONDecoder) -> AnyHashable? {
        guard let identifiedType else { return nil }
        return Self.decodedIdentifier(of: record, as: identifiedType, with: decoder)
    }

    private static func decodedIdentifier<Identified: Identifiable>(
        of record: Data, as type: Identified.Type, with decoder: JSONDecoder
    ) -> AnyHashable? {
        guard let idType = Identified.ID.self as? any Decodable.Type,
            let id = decoded(idType, from: record, with: decoder) as? Identified.ID
        else { return nil }
        return AnyHashable(id)
    }

    private static func decoded<ID: Decodable>(_ type: ID.Type, from record: Data, with decoder: JSONDecoder) -> Any? {
        try? decoder.decode(IdentifierOnly<ID>.self, from: record).id
    }
}

/// The `id` of a record, alone.
private struct IdentifierOnly<ID: Decodable>: Decodable {
    var id: ID
}

// The one stored property is a metatype: immutable type metadata that the runtime shares between threads anyway.
// It is not declared Sendable only because the protocol `Identifiable` is not constrained to sendable metatypes.
extension RecordIdentity: @unchecked Sendable {}
