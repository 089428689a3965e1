rchar: 51756379056
wchar: 13661
syscr: 395089
syscw: 5
read_bytes: 16384
write_bytes: 20480
cancelled_write_bytes: 0
