rchar: 95457839569
wchar: 5983
syscr: 728475
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
