rchar: 149592058863
wchar: 18987
syscr: 1141517
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
