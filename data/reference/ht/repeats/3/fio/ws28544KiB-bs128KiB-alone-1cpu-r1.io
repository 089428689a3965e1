rchar: 37235305440
wchar: 13661
syscr: 284301
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
