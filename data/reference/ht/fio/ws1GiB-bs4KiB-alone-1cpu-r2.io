rchar: 17195645892
wchar: 13663
syscr: 4198348
syscw: 5
read_bytes: 323584
write_bytes: 8192
cancelled_write_bytes: 0
