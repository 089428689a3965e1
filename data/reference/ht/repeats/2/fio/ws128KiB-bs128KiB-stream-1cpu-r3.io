rchar: 110400482299
wchar: 13672
syscr: 842509
syscw: 5
read_bytes: 0
write_bytes: 53248
cancelled_write_bytes: 0
