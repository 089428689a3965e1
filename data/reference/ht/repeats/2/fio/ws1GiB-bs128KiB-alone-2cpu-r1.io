rchar: 61630515715
wchar: 11289
syscr: 470395
syscw: 3
read_bytes: 0
write_bytes: 40960
cancelled_write_bytes: 0
