rchar: 74440968657
wchar: 5984
syscr: 568129
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
