/// Reads the value at a key path, directly from memory when the key path names a stored property of a struct:
/// `object[keyPath:]` calls into the runtime each time, several times the cost of the comparison.
@usableFromInline
struct FieldReader<Object, Value>: Sendable {
    @usableFromInline let keyPath: KeyPath<Object, Value> & Sendable
    @usableFromInline let offset: Int?

    @inlinable
    init(_ keyPath: KeyPath<Object, Value> & Sendable) {
        self.keyPath = keyPath
        offset = MemoryLayout<Object>.offset(of: keyPath)
    }

    /// The value in the record at `record`, read in place, so that its other references are not retained.
    @inlinable
    func read(at record: UnsafePointer<Object>) -> Value {
        guard let offset else { return record.pointee[keyPath: keyPath] }
        // The offset is that of a stored property of `Object`, so the memory there is bound to `Value`.
        return (UnsafeRawPointer(record) + offset).assumingMemoryBound(to: Value.self).pointee
    }
}

extension FieldReader where Value: Comparable & Sendable {
    /// A stable sort by this field of the given positions of the records.
    @inlinable
    func sort(_ order: StoreSortOrder) -> @Sendable ([Object], [Int]) -> [Int] {
        return { records, positions in
            // Keys beside their positions: the sort compares neighbours in memory, not keys scattered elsewhere.
            var keyed = records.withUnsafeBufferPointer { records in
                positions.map { (key: read(at: records.baseAddress! + $0), position: $0) }
            }
            // Two sorts rather than one that asks the order at each comparison, which runs some n log n times.
            if order == .ascending {
                keyed.sort { $0.key < $1.key }
            } else {
                keyed.sort { $1.key < $0.key }
            }
            return keyed.map(\.position)
        }
    }
}
