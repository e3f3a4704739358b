/// What makes two records the same record: the `id` of an `Identifiable` type, else the whole value.
///
/// The choice is made from the type at run time, so an `Identifiable` type is identified by its `id` even in a
/// store made by generic code that did not know it.
struct RecordIdentity<Object: Hashable>: Sendable {
    /// Reads a record's `id`, when its type has one. Made once from the type, so that the check for
    /// `Identifiable`, a search of the type's conformances, is not repeated for every record of a large file.
    private let identifier: (@Sendable (Object) -> AnyHashable)?

    /// Whether records are identified by an `id` rather than by their whole value.
    var usesIdentifier: Bool { identifier != nil }

    init() {
        identifier = (Object.self as? any Identifiable.Type).map { Self.identifier(as: $0) }
    }

    func of(_ object: Object) -> AnyHashable {
        identifier?(object) ?? AnyHashable(object)
    }

    // Generic, so that the metatype above is opened. `Identified` is `Object` itself, opened from its own metatype,
    // so each record is reinterpreted as the very type it is; a checked cast would search conformances each time.
    private static func identifier<Identified: Identifiable>(
        as type: Identified.Type
    ) -> @Sendable (Object) -> AnyHashable {
        precondition(Identified.self == Object.self)
        return { object in AnyHashable(unsafeBitCast(object, to: Identified.self).id) }
    }
}
