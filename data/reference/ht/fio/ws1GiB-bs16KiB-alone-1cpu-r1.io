rchar: 27343383498
wchar: 13664
syscr: 1669121
syscw: 5
read_bytes: 135168
write_bytes: 16384
cancelled_write_bytes: 0
