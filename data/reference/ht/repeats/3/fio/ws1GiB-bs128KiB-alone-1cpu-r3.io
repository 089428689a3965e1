rchar: 52094938030
wchar: 13661
syscr: 397672
syscw: 5
read_bytes: 360448
write_bytes: 12288
cancelled_write_bytes: 0
