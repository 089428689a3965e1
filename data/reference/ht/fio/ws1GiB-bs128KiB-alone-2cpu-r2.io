rchar: 77535095809
wchar: 18969
syscr: 591766
syscw: 5
read_bytes: 299008
write_bytes: 16384
cancelled_write_bytes: 0
