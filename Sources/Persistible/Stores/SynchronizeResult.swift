/// What `synchronize(with:)` changed.
public struct SynchronizeResult<Object> {
    /// The records that were not stored before, in the order given.
    public var added: [Object] = []

    /// The records whose identity was stored with another value, as they are now.
    ///
    /// Always empty for types that are not `Identifiable`: a record is its whole value, so a changed value is a
    /// record removed and another added.
    public var updated: [Object] = []

    /// The records that are no longer stored, in their old order.
    public var removed: [Object] = []

    /// How many stored records were removed because no value could be made from them: always 0 except in a
    /// ``DomainStore``, whose reads skip such records.
    public var removedUnconvertible = 0

    /// Whether the store already held exactly the given records.
    public var isEmpty: Bool { added.isEmpty && updated.isEmpty && removed.isEmpty && removedUnconvertible == 0 }
}

extension SynchronizeResult: Equatable where Object: Equatable {}

extension SynchronizeResult: Sendable where Object: Sendable {}
