/// What makes two records the same record: the `id` of an `Identifiable` type, else the whole value.
///
/// The choice is made from the type at run time, so an `Identifiable` type is identified by its `id` even in a
/// store made by generic code that did not know it.
struct RecordIdentity<Object: Hashable>: Sendable {
    /// Whether records are identified by an `id` rather than by their whole value.
    let usesIdentifier: Bool

    init() {
        usesIdentifier = Object.self is any Identifiable.Type
    }

    func of(_ object: Object) -> AnyHashable {
        if usesIdentifier, let identifiable = object as? any Identifiable {
            return Self.identifier(of: identifiable)
        }
        return AnyHashable(object)
    }

    // Generic, so that the existential above is opened and its `id` read with its concrete type.
    private static func identifier<T: Identifiable>(of value: T) -> AnyHashable {
        AnyHashable(value.id)
    }
}
