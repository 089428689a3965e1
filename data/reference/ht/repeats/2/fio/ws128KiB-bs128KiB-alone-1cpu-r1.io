rchar: 110890387905
wchar: 5983
syscr: 846216
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
