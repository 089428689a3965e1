rchar: 38082292688
wchar: 13654
syscr: 36538
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
