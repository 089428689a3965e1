rchar: 65520249816
wchar: 13663
syscr: 500098
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
