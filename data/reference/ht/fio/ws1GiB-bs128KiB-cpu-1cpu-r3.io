rchar: 24636140487
wchar: 13661
syscr: 188176
syscw: 5
read_bytes: 12288
write_bytes: 36864
cancelled_write_bytes: 0
