rchar: 47375035344
wchar: 13656
syscr: 361661
syscw: 5
read_bytes: 0
write_bytes: 36864
cancelled_write_bytes: 0
