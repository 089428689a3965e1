rchar: 78139730986
wchar: 18969
syscr: 596379
syscw: 5
read_bytes: 32768
write_bytes: 12288
cancelled_write_bytes: 0
