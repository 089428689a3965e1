rchar: 149358226445
wchar: 18984
syscr: 1139732
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
