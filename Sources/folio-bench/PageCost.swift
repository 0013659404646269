import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// `folio-bench page-cost MIB`: what touching fresh memory costs on this machine, the yardstick for the
/// kernel time in the workloads' rows.
///
/// Maps `MIB` MiB of anonymous memory, writes one byte to each page, and reports the time per page, in
/// all and for each 256 MiB in turn (`us_per_page_by_256_mib`), which shows where the price changes. On
/// bare metal a first touch costs a fraction of a microsecond (the kernel zeroes a 4 KiB page). In a
/// virtual machine whose host backs guest memory on demand, and takes back what the guest frees, the
/// cost can be several times that and grow with the amount touched. A workload that allocates in
/// proportion to the records then grows faster than its own work does.
enum PageCost {
    static func run(mebibytes: Int) {
        let bytes = max(mebibytes, 1) << 20
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard let region = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            region != MAP_FAILED
        else {
            FileHandle.standardError.write(Data("folio-bench: page-cost: cannot map \(mebibytes) MiB\n".utf8))
            exit(2)
        }
        defer { munmap(region, bytes) }
        let usage = StepUsage()
        let t0 = now()
        let base = region.assumingMemoryBound(to: UInt8.self)
        let sliceBytes = 256 << 20
        var slices: [Double] = []
        var sliceStart = 0
        while sliceStart < bytes {
            let sliceEnd = min(sliceStart + sliceBytes, bytes)
            let s0 = now()
            var offset = sliceStart
            while offset < sliceEnd {
                base[offset] = 1
                offset += pageSize
            }
            slices.append((now() - s0) * 1e6 / Double((sliceEnd - sliceStart + pageSize - 1) / pageSize))
            sliceStart = sliceEnd
        }
        let seconds = now() - t0
        let spent = usage.spent()
        let pages = bytes / pageSize
        var row = Row("page-cost")
        row.add("mib", mebibytes)
        row.add("pages", pages)
        row.add("seconds", seconds, decimals: 4)
        row.add("us_per_page", seconds * 1e6 / Double(pages), decimals: 3)
        row.add("us_per_page_by_256_mib", slices, decimals: 2)
        spent.add(to: &row)
        row.emit()
    }
}
